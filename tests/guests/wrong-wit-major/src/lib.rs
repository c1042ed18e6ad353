//! A validator built against a future `vcc:validator@1.0.0` the host does
//! not support. Deliberately not built with vcc-sdk: it carries its own copy
//! of a *different* interface, which is the point of the fixture.
wit_bindgen::generate!({
    inline: r#"
        package vcc:validator@1.0.0;

        interface validator {
            record description { name: string, version: string, summary: string, params-schema: string }
            describe: func() -> description;
            validate: func(criterion-json: string) -> result<string, string>;
        }

        world plugin {
            export validator;
        }
    "#,
    world: "plugin",
});

use exports::vcc::validator::validator::{Description, Guest};

struct Future;

impl Guest for Future {
    fn describe() -> Description {
        Description {
            name: "from-the-future".into(),
            version: "9.0.0".into(),
            summary: "speaks vcc:validator@1.0.0".into(),
            params_schema: "{}".into(),
        }
    }
    fn validate(_: String) -> Result<String, String> {
        Ok("pass".into())
    }
}

export!(Future);
