//! Exports `vcc:validator/validator@0.1.1` without its `validate` function.
//! The host must refuse it before instantiating it.
wit_bindgen::generate!({
    inline: r#"
        package vcc:validator@0.1.1;

        interface validator {
            record description { name: string, version: string, summary: string, params-schema: string }
            describe: func() -> description;
        }

        world plugin {
            export validator;
        }
    "#,
    world: "plugin",
});

use exports::vcc::validator::validator::{Description, Guest};

struct Half;

impl Guest for Half {
    fn describe() -> Description {
        Description {
            name: "half".into(),
            version: "0.1.0".into(),
            summary: "describes itself, validates nothing".into(),
            params_schema: "{}".into(),
        }
    }
}

export!(Half);
