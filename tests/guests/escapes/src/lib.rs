//! Returns text full of terminal escapes and bidi overrides, trying to
//! repaint the screen or fake a PASS line in human output.
use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator};

struct Escapes;

impl Validator for Escapes {
    fn describe() -> Description {
        Description::new("escapes", "0.1.0", "prints terminal escapes")
    }
    fn validate(_: Criterion) -> Result<Outcome, String> {
        Ok(
            Outcome::fail("\x1b[2K\r\x1b[32mPASS\x1b[0m all good\x07").finding(
                Finding::new("\x1b]0;pwned\x07title \u{202e}txt.exe")
                    .path("\x1b[31mred.md")
                    .rule("\x1b[1mbold"),
            ),
        )
    }
}

vcc_sdk::export_validator!(Escapes);
