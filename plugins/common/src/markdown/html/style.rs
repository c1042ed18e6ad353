//! Inline-style declarations and what each does to the element's text
//! (issue 34, rounds 3 and 4): a sure hiding (`display:none`, text too
//! faint or too small to read, a colour with no alpha written any way CSS
//! allows, the `font: 0/0 a` shorthand), a hiding that depends on the
//! layout or on a value vcc cannot compute (`transform`, the offsets,
//! `calc()`, `var()`, `color-mix()`, `scale`, `zoom`, `mask-image`, any
//! property not known here: see `hidden::layout_hides`), or nothing. A
//! property or value vcc does not know as shown is never read as shown:
//! the round-4 forgeries hid text behind `scale:0`, `zoom:0.01`,
//! `inset:-99999px`, `filter:blur()` and `color-mix(…, transparent)`.

/// What a declaration does to the element's text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Seen {
    /// Nothing a reader would miss.
    Shown,
    /// Hidden in every layout.
    Hidden,
    /// Hidden in some layouts, or with a value vcc cannot compute.
    Layout,
}

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

/// Properties that never hide text or move it off the page, whatever
/// their value (prefixes end in `-`). Any property not here nor read in
/// `seen` is read as `Seen::Layout`.
const HARMLESS: [&str; 48] = [
    // Generated text is `css.rs`'s matter (refused as `generated-content`).
    "content",
    "quotes",
    "counter-reset",
    "counter-increment",
    "font-weight",
    "font-style",
    "font-family",
    "font-variant",
    "font-stretch",
    "font-feature-settings",
    "font-kerning",
    "text-align",
    "text-transform",
    "text-decoration",
    "text-underline-",
    "text-wrap",
    "text-overflow",
    "white-space",
    "word-break",
    "word-wrap",
    "overflow-wrap",
    "hyphens",
    "background",
    "border",
    "padding",
    "outline",
    "list-style",
    "min-width",
    "min-height",
    "box-sizing",
    "box-shadow",
    "cursor",
    "float",
    "clear",
    "position",
    "overflow",
    "flex",
    "gap",
    "row-gap",
    "column-gap",
    "justify-",
    "align-",
    "place-",
    "grid-template",
    "order",
    "direction",
    "unicode-bidi",
    "table-layout",
];

/// Whether a declaration (`name` lower-case, `value` lower-case, trimmed
/// and without `!important`) hides the element's text.
pub(super) fn seen(name: &str, value: &str) -> Seen {
    use Seen::{Hidden, Layout, Shown};
    if name.starts_with("--") {
        // A custom property shows nothing by itself.
        return Shown;
    }
    if ["var(", "attr(", "env(", "calc(", "min(", "max(", "clamp("]
        .iter()
        .any(|f| value.contains(f))
    {
        // A value computed at run time: vcc cannot tell what it is.
        return if harmless(name) { Shown } else { Layout };
    }
    let known = |ok: bool| if ok { Shown } else { Layout };
    match name {
        "display" => match value {
            "none" => Hidden,
            _ => known(value.split_whitespace().all(|w| {
                matches!(
                    w,
                    "block"
                        | "inline"
                        | "inline-block"
                        | "flex"
                        | "inline-flex"
                        | "grid"
                        | "inline-grid"
                        | "flow-root"
                        | "flow"
                        | "contents"
                        | "list-item"
                        | "table"
                        | "table-row"
                        | "table-cell"
                        | "table-row-group"
                        | "table-header-group"
                        | "table-footer-group"
                        | "table-column"
                        | "table-column-group"
                        | "table-caption"
                        | "inline-table"
                        | "inherit"
                        | "initial"
                        | "unset"
                        | "revert"
                )
            })),
        },
        "visibility" => match value {
            "hidden" | "collapse" => Hidden,
            _ => known(matches!(
                value,
                "visible" | "inherit" | "initial" | "unset" | "revert"
            )),
        },
        "content-visibility" => match value {
            "hidden" => Hidden,
            _ => known(matches!(value, "visible" | "auto")),
        },
        "opacity" | "fill-opacity" => match share(value) {
            Some(n) if n < FAINT => Hidden,
            Some(_) => Shown,
            None => Layout,
        },
        "filter" => {
            if value == "none" {
                Shown
            } else if value.replace(' ', "").contains("opacity(0") {
                Hidden
            } else {
                // `blur(40px)`, `contrast(0)`, …: may leave nothing legible.
                Layout
            }
        }
        "font-size" => font_size(value),
        "font" => {
            let size = value
                .split_whitespace()
                .find(|t| t.starts_with(|c: char| c.is_ascii_digit() || c == '.' || c == '-'));
            match size {
                Some(t) => font_size(t.split('/').next().unwrap_or(t)),
                None => Shown,
            }
        }
        "color" | "-webkit-text-fill-color" | "fill" => color(value),
        // Sized, clipped, moved or transformed: hidden in some layouts.
        "height" | "max-height" | "width" | "max-width" | "line-height" => {
            known(!value.split_whitespace().any(zero) && measurable(value))
        }
        "clip" | "clip-path" | "mask" | "mask-image" | "-webkit-mask" | "-webkit-mask-image" => {
            known(matches!(value, "auto" | "none"))
        }
        "transform" | "scale" | "translate" | "rotate" => known(value == "none"),
        "text-indent" | "left" | "top" | "margin" | "margin-left" | "margin-top"
        | "margin-right" | "margin-bottom" | "letter-spacing" | "word-spacing" | "z-index"
        | "vertical-align" => {
            known(!value.split_whitespace().any(|t| t.starts_with('-')) && measurable(value))
        }
        "right" | "bottom" => known(value == "auto" || number(value).is_some_and(|n| n == 0.0)),
        _ if harmless(name) => Shown,
        _ => Layout,
    }
}

fn harmless(name: &str) -> bool {
    HARMLESS.iter().any(|h| {
        name == *h
            || (h.ends_with('-') && name.starts_with(h))
            || name.starts_with(&format!("{h}-"))
    })
}

/// A value of numbers with units and keywords only (no function).
fn measurable(value: &str) -> bool {
    !value.contains('(')
}

fn zero(token: &str) -> bool {
    number(token).is_some_and(|n| n <= 0.0)
}

/// A number with its unit left off (`0.5`, `12px`, `50%`).
fn number(value: &str) -> Option<f64> {
    value
        .trim()
        .trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '%')
        .parse()
        .ok()
}

/// An opacity as a share: `0.05`, or `5%` (CSS takes both).
fn share(value: &str) -> Option<f64> {
    match value.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().ok().map(|p| p / 100.0),
        None => value.parse().ok(),
    }
}

/// A font size no reader reads: under 4px, or a quarter of the parent's;
/// a keyword is shown; a unit vcc does not size (`vw`, `vh`, …) may be
/// tiny on some screen.
fn font_size(value: &str) -> Seen {
    let value = value.trim();
    let Some(n) = number(value) else {
        let keyword = value.chars().all(|c| c.is_ascii_alphabetic() || c == '-');
        return if keyword { Seen::Shown } else { Seen::Layout };
    };
    let unit =
        value.trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | '-' | '+'));
    let px = match unit {
        _ if n <= 0.0 => return Seen::Hidden,
        "px" => n,
        "pt" => n * 4.0 / 3.0,
        "pc" => n * 16.0,
        "in" => n * 96.0,
        "cm" => n * 96.0 / 2.54,
        "mm" => n * 96.0 / 25.4,
        "%" => n / 100.0 * TINY_PX / TINY_SHARE,
        "em" | "rem" | "ex" | "ch" | "" => n * TINY_PX / TINY_SHARE,
        _ => return Seen::Layout,
    };
    if px < TINY_PX {
        Seen::Hidden
    } else {
        Seen::Shown
    }
}

/// A colour: with no alpha (`transparent`, `rgba(…, 0)`, `rgb(… / 0%)`,
/// `hsla(…, 0.0)`, `#0000`, `#rrggbb00`, `none` for `fill`) hidden; a
/// name, `#hex` or `rgb()`/`hsl()` with alpha shown; anything else
/// (`color-mix()`, `light-dark()`, …) vcc cannot tell.
fn color(value: &str) -> Seen {
    let v = value.replace(' ', "");
    if v == "transparent" || v == "none" {
        return Seen::Hidden;
    }
    if let Some(hex) = v.strip_prefix('#') {
        return match hex.len() {
            4 if hex.ends_with('0') => Seen::Hidden,
            8 if hex.ends_with("00") => Seen::Hidden,
            3 | 4 | 6 | 8 if hex.chars().all(|c| c.is_ascii_hexdigit()) => Seen::Shown,
            _ => Seen::Layout,
        };
    }
    if v.chars().all(|c| c.is_ascii_alphabetic()) {
        return Seen::Shown;
    }
    let Some((func, args)) = v.strip_suffix(')').and_then(|v| v.split_once('(')) else {
        return Seen::Layout;
    };
    if !matches!(
        func,
        "rgb" | "rgba" | "hsl" | "hsla" | "hwb" | "lab" | "lch" | "oklab" | "oklch"
    ) {
        return Seen::Layout;
    }
    let alpha = match args.rsplit_once('/') {
        Some((_, a)) => Some(a),
        None if args.split(',').count() == 4 => args.rsplit(',').next(),
        None => None,
    };
    match alpha.map(share) {
        None => Seen::Shown,
        Some(Some(s)) if s < FAINT => Seen::Hidden,
        Some(Some(_)) => Seen::Shown,
        Some(None) => Seen::Layout,
    }
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
