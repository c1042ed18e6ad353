//! `vcc validator wit`: the interface this vcc speaks, for any toolchain's
//! bindings generator, and the versions it still loads.

use std::path::Path;

/// The interface this vcc speaks.
pub const WIT: &str = include_str!("../../../../wit/validator.wit");
/// Its version (a unit test holds it to the WIT's `package` line).
pub const WIT_VERSION: &str = "0.1.4";
/// The released versions this vcc still loads, oldest first.
const FROZEN_WIT: &[(&str, &str)] = &[
    (
        "0.1.0",
        include_str!("../../../../wit/frozen/0.1.0/validator.wit"),
    ),
    (
        "0.1.1",
        include_str!("../../../../wit/frozen/0.1.1/validator.wit"),
    ),
    (
        "0.1.2",
        include_str!("../../../../wit/frozen/0.1.2/validator.wit"),
    ),
    (
        "0.1.3",
        include_str!("../../../../wit/frozen/0.1.3/validator.wit"),
    ),
];

/// `vcc validator wit [--out DIR]`: the WIT this vcc speaks on stdout, or
/// every version it loads written to `DIR/VERSION/validator.wit` (one
/// folder each: a WIT folder holds one version of a package).
pub fn wit(out: Option<&Path>) -> i32 {
    let Some(out) = out else {
        crate::output::print_stdout(WIT);
        return 0;
    };
    let all = FROZEN_WIT.iter().copied().chain([(WIT_VERSION, WIT)]);
    for (version, text) in all {
        let path = out.join(version).join("validator.wit");
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, text));
        if let Err(e) = written {
            eprintln!("vcc validator wit: cannot write {}: {e}", path.display());
            return 2;
        }
        let latest = if version == WIT_VERSION {
            " (the newest: build against this one)"
        } else {
            ""
        };
        println!("{}  vcc:validator@{version}{latest}", path.display());
    }
    eprintln!(
        "world `plugin`; a validator exports `validator` and `params`, and imports `deliverables` and `judge`"
    );
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wit_version_is_the_packages() {
        assert!(WIT.contains(&format!("package vcc:validator@{WIT_VERSION};")));
        for (version, text) in FROZEN_WIT {
            assert!(
                text.contains(&format!("package vcc:validator@{version};")),
                "{version}"
            );
        }
    }
}
