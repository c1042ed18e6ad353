//! Durations (`10s`) and byte sizes (`256MiB`) as written in contracts.
//!
//! Both keep the text the author wrote, so reports and errors quote it back.
//! Arithmetic is checked: an absurd number is an error, never a wrap-around.

use std::fmt;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DurationSpec(pub Duration);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSize(pub u64);

impl DurationSpec {
    /// Parse `<integer><unit>` with unit `ms`, `s`, `m` or `h`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (number, unit) = split_number(text).ok_or_else(|| {
            format!("`{text}` is not a duration: write a whole number and a unit (ms, s, m, h), e.g. `10s`")
        })?;
        let millis_per_unit: u64 = match unit {
            "ms" => 1,
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            _ => {
                return Err(format!(
                    "`{text}`: unknown duration unit `{unit}` (use ms, s, m or h)"
                ));
            }
        };
        let millis = number?
            .checked_mul(millis_per_unit)
            .ok_or_else(|| format!("`{text}` is too large"))?;
        Ok(DurationSpec(Duration::from_millis(millis)))
    }
}

impl ByteSize {
    /// Parse `<integer><unit>` with unit `B`, `KiB`, `MiB`, `GiB`, `KB`, `MB`, `GB`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (number, unit) = split_number(text).ok_or_else(|| {
            format!("`{text}` is not a size: write a whole number and a unit (B, KiB, MiB, GiB, KB, MB, GB), e.g. `256MiB`")
        })?;
        let per_unit: u64 = match unit {
            "B" => 1,
            "KiB" => 1 << 10,
            "MiB" => 1 << 20,
            "GiB" => 1 << 30,
            "KB" => 1_000,
            "MB" => 1_000_000,
            "GB" => 1_000_000_000,
            _ => {
                return Err(format!(
                    "`{text}`: unknown size unit `{unit}` (use B, KiB, MiB, GiB, KB, MB or GB)"
                ));
            }
        };
        number?
            .checked_mul(per_unit)
            .map(ByteSize)
            .ok_or_else(|| format!("`{text}` is too large"))
    }
}

/// `"10s"` → `(Ok(10), "s")`. Digits only: no sign, no fraction, no
/// exponent. The number is `Err` with the error text when it overflows u64.
fn split_number(text: &str) -> Option<(Result<u64, String>, &str)> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits == text.len() {
        return None;
    }
    let number = text[..digits]
        .parse()
        .map_err(|_| format!("`{text}` is too large"));
    Some((number, &text[digits..]))
}

impl fmt::Display for DurationSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0.as_millis();
        match ms {
            ms if ms % 3_600_000 == 0 && ms > 0 => write!(f, "{}h", ms / 3_600_000),
            ms if ms % 60_000 == 0 && ms > 0 => write!(f, "{}m", ms / 60_000),
            ms if ms % 1_000 == 0 && ms > 0 => write!(f, "{}s", ms / 1_000),
            ms => write!(f, "{ms}ms"),
        }
    }
}

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        match b {
            b if b % (1 << 30) == 0 && b > 0 => write!(f, "{}GiB", b >> 30),
            b if b % (1 << 20) == 0 && b > 0 => write!(f, "{}MiB", b >> 20),
            b if b % (1 << 10) == 0 && b > 0 => write!(f, "{}KiB", b >> 10),
            b => write!(f, "{b}B"),
        }
    }
}

macro_rules! text_unit {
    ($ty:ident, $name:literal, $pattern:literal, $example:literal) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
                let text = String::deserialize(de)?;
                $ty::parse(&text).map_err(serde::de::Error::custom)
            }
        }

        impl Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl JsonSchema for $ty {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                $name.into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "type": "string",
                    "pattern": $pattern,
                    "examples": [$example],
                })
            }
        }
    };
}

text_unit!(DurationSpec, "Duration", "^[0-9]+(ms|s|m|h)$", "10s");
text_unit!(
    ByteSize,
    "ByteSize",
    "^[0-9]+(B|KiB|MiB|GiB|KB|MB|GB)$",
    "256MiB"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_and_print_back() {
        for (text, ms) in [
            ("10s", 10_000),
            ("500ms", 500),
            ("2m", 120_000),
            ("1h", 3_600_000),
        ] {
            let d = DurationSpec::parse(text).unwrap();
            assert_eq!(d.0, Duration::from_millis(ms));
            assert_eq!(d.to_string(), text);
        }
    }

    #[test]
    fn absurd_durations_are_errors_not_wraparounds() {
        for text in [
            "",
            "10",
            "s",
            "-1s",
            "1.5s",
            "NaNs",
            "10 s",
            "10sec",
            "99999999999999999999s",
        ] {
            assert!(
                DurationSpec::parse(text).is_err(),
                "{text:?} should be refused"
            );
        }
        for text in ["18446744073709551615h", "99999999999999999999s"] {
            let err = DurationSpec::parse(text).unwrap_err();
            assert!(err.contains("too large"), "{err}");
        }
        let err = ByteSize::parse("99999999999999999999B").unwrap_err();
        assert!(err.contains("too large"), "{err}");
    }

    #[test]
    fn sizes_parse_and_print_back() {
        assert_eq!(ByteSize::parse("256MiB").unwrap().0, 256 << 20);
        assert_eq!(ByteSize::parse("1GB").unwrap().0, 1_000_000_000);
        assert_eq!(ByteSize::parse("256MiB").unwrap().to_string(), "256MiB");
        assert!(ByteSize::parse("-1MiB").is_err());
        assert!(
            ByteSize::parse("1TiB")
                .unwrap_err()
                .contains("unknown size unit")
        );
        assert!(
            ByteSize::parse("18446744073709551615GiB")
                .unwrap_err()
                .contains("too large")
        );
    }
}
