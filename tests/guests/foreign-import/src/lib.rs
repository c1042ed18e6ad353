//! A vcc:validator@0.1.4 component that also imports an interface the host
//! does not provide (`acme:secrets/vault`): it can never be linked, and
//! `vcc validator inspect` must flag that import as refused.
wit_bindgen::generate!({
    inline: r#"
        package acme:secrets@1.0.0;

        interface vault {
            fetch: func(name: string) -> string;
        }

        world plugin {
            import vault;
            import vcc:validator/deliverables@0.1.4;
            export vcc:validator/validator@0.1.4;
        }
    "#,
    path: "../../../wit",
    world: "acme:secrets/plugin",
    generate_all,
});

use exports::vcc::validator::validator::Guest;
use vcc::validator::types::{Criterion, Description, Outcome, Status};

struct Foreign;

impl Guest for Foreign {
    fn describe() -> Description {
        Description {
            name: "foreign-import".into(),
            version: "0.1.0".into(),
            summary: "needs a secret vault".into(),
            params_schema: r#"{"type":"object"}"#.into(),
        }
    }

    fn validate(_: Criterion) -> Result<Outcome, String> {
        let token = acme::secrets::vault::fetch("deploy-token");
        Ok(Outcome {
            status: Status::Pass,
            summary: format!("got a {}-byte secret", token.len()),
            findings: Vec::new(),
            evidence: Vec::new(),
        })
    }
}

export!(Foreign);
