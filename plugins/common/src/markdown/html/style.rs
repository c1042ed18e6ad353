//! Inline-style declarations that hide text, beyond a zero or `none`
//! (issue 34, round 3): text too faint or too small to read, a colour
//! with no alpha written any way CSS allows, the `font: 0/0 a` shorthand,
//! any transform or a `right`/`bottom` offset (the box may be drawn at
//! size zero, edge-on or off the page: `transform` and the offsets hide
//! only in some layouts, see `hidden::layout_hides`).

/// A style with its comments (`/* … */`) left out, as CSS reads it
/// (`display:/**/none` is `display: none`); an unclosed comment runs to
/// the end.
pub(super) fn without_comments(style: &str) -> String {
    let mut out = String::with_capacity(style.len());
    let mut rest = style;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        out.push(' ');
        rest = match rest[i + 2..].find("*/") {
            Some(e) => &rest[i + 2 + e + 2..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// Below this opacity a reader sees no text.
const FAINT: f64 = 0.1;
/// Below this size (in px, or the share of the parent's size for `em`,
/// `rem`, `%`) a reader reads no text.
const TINY_PX: f64 = 4.0;
const TINY_SHARE: f64 = 0.25;

/// Whether a declaration (`name` lower-case, `value` lower-case and without
/// `!important`) hides the element's text; `None` if `name` is none of
/// those read here.
pub(super) fn hides(name: &str, value: &str) -> Option<bool> {
    Some(match name {
        "opacity" => number(value).is_some_and(|n| n < FAINT),
        "filter" => value.replace(' ', "").contains("opacity(0"),
        "font-size" => tiny(value),
        "font" => value
            .split_whitespace()
            .find(|t| t.starts_with(|c: char| c.is_ascii_digit() || c == '.' || c == '-'))
            .is_some_and(|t| tiny(t.split('/').next().unwrap_or(t))),
        "color" | "-webkit-text-fill-color" => transparent(value),
        "transform" => value != "none",
        "right" | "bottom" => value != "auto" && number(value).is_none_or(|n| n != 0.0),
        _ => return None,
    })
}

/// A number with its unit left off (`0.5`, `12px`, `50%`).
fn number(value: &str) -> Option<f64> {
    value
        .trim()
        .trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '%')
        .parse()
        .ok()
}

/// A font size no reader reads: under 4px, or a quarter of the parent's.
fn tiny(value: &str) -> bool {
    let value = value.trim();
    let Some(n) = number(value) else {
        return false;
    };
    if value.ends_with("px") || n <= 0.0 {
        n < TINY_PX
    } else if value.ends_with('%') {
        n / 100.0 < TINY_SHARE
    } else if value.ends_with("em") || value.ends_with("rem") {
        n < TINY_SHARE
    } else {
        // `pt`, `vw`, … : only a zero is read as hidden.
        n <= 0.0
    }
}

/// A colour with no alpha: `transparent`, `rgba(…, 0)`, `rgb(… / 0%)`,
/// `hsla(…, 0.0)`, `#0000`, `#rrggbb00`.
fn transparent(value: &str) -> bool {
    let v = value.replace(' ', "");
    if v == "transparent" {
        return true;
    }
    if let Some(hex) = v.strip_prefix('#') {
        return match hex.len() {
            4 => hex.ends_with('0'),
            8 => hex.ends_with("00"),
            _ => false,
        };
    }
    let Some(args) = v
        .strip_suffix(')')
        .and_then(|v| v.split_once('('))
        .map(|(_, a)| a)
    else {
        return false;
    };
    let alpha = match args.rsplit_once('/') {
        Some((_, a)) => Some(a),
        None if args.split(',').count() == 4 => args.rsplit(',').next(),
        None => None,
    };
    alpha.is_some_and(|a| {
        let share = if let Some(p) = a.strip_suffix('%') {
            p.parse::<f64>().map(|p| p / 100.0)
        } else {
            a.parse::<f64>()
        };
        share.is_ok_and(|s| s < FAINT)
    })
}

#[cfg(test)]
mod tests {
    use super::super::style_hides;

    #[test]
    fn faint_tiny_and_transparent_text_is_hidden() {
        for style in [
            "opacity: 0.05",
            "filter: opacity(0)",
            "font-size: 1px",
            "font-size: 0.1em",
            "font-size: 10%",
            "font: 0/0 a",
            "color: rgba(0, 0, 0, 0.0)",
            "color: rgb(0 0 0 / 0%)",
            "color: hsla(0, 0%, 0%, 0)",
            "color: #0000",
            "color: #ffffff00",
            "transform: scaleX(0)",
            "transform: rotateX(90deg)",
            "position: absolute; right: 9999px",
            "display:/**/none",
            "display: n\\6f ne",
        ] {
            assert!(style_hides(style), "{style}");
        }
        for style in [
            "opacity: 0.8",
            "font-size: 12px",
            "font-size: 0.9em",
            "font: 12px/1.5 serif",
            "color: rgba(0, 0, 0, 0.9)",
            "color: #333",
            "color: #333333",
            "transform: none",
            "right: 0",
            "right: auto",
            "color: red /* display: none */",
        ] {
            assert!(!style_hides(style), "{style}");
        }
    }
}
