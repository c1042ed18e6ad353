//! The arguments of the commands about validators and bundles:
//! `vcc validator`, `vcc key`, `vcc bundle`, `vcc lock`.

use super::*;

#[derive(Subcommand)]
pub enum KeyCommand {
    /// Write NAME.key (Ed25519 private key, PKCS#8 PEM, mode 0600) and
    /// NAME.pub (SPKI PEM); prints the key id.
    Generate {
        /// A path without extension, e.g. `keys/platform`.
        name: PathBuf,
    },
}

#[derive(Subcommand)]
pub enum BundleCommand {
    /// Build a bundle from vcc-bundle.yaml into an OCI image layout.
    Build {
        /// The bundle manifest (vcc-bundle.yaml).
        manifest: PathBuf,
        /// The OCI image layout folder to write.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Name, version, validators, digests, signatures and who signed.
    Inspect {
        /// An OCI image layout folder (DIR, DIR:TAG or DIR@sha256:…), or
        /// HOST[:PORT]/REPO:TAG.
        target: String,
        #[command(flatten)]
        trust: TrustArgs,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Sign a bundle: a DSSE envelope over an in-toto Statement, stored
    /// beside it (several signers may sign).
    Sign {
        /// The bundle's OCI image layout folder.
        dir: PathBuf,
        /// The signer's private key (NAME.key).
        #[arg(long, value_name = "FILE")]
        key: PathBuf,
        /// After this the signature no longer counts: a duration (`90d`)
        /// or an RFC 3339 time.
        #[arg(long, value_name = "WHEN")]
        expires: Option<String>,
    },
    /// Verify a bundle against the trust policy: exit 0 trusted, 2 refused
    /// (with a stable code).
    Verify {
        /// An OCI image layout folder (DIR, DIR:TAG or DIR@sha256:…), or
        /// HOST[:PORT]/REPO:TAG.
        target: String,
        #[command(flatten)]
        trust: TrustArgs,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Push a bundle and its signatures to a registry.
    Push {
        /// The bundle's OCI image layout folder.
        dir: PathBuf,
        /// HOST[:PORT]/REPO:TAG
        reference: String,
        /// Allow plain HTTP (always allowed to loopback addresses).
        #[arg(long)]
        insecure: bool,
    },
    /// Pull a bundle (from a registry, or an OCI layout folder), verify it
    /// against the trust policy, store it, and precompile its validators.
    Pull {
        /// HOST[:PORT]/REPO:TAG, HOST[:PORT]/REPO@sha256:…, or an OCI image
        /// layout folder: DIR (every bundle it holds, each verified first),
        /// DIR:TAG or DIR@sha256:….
        source: String,
        #[command(flatten)]
        trust: TrustArgs,
    },
    /// Fetch the signatures the registry holds now for pinned bundles (by
    /// manifest digest: only signatures can change) and keep them when the
    /// bundle verifies with them: after a key rotation, instead of a new
    /// lock. Exit 0 when every bundle is trusted, 2 when one is refused.
    Refresh {
        /// Contracts whose vcc.lock names the bundles [default: every
        /// stored bundle pulled from a registry].
        contracts: Vec<PathBuf>,
        #[command(flatten)]
        trust: TrustArgs,
    },
    /// The bundles in the local store: name, version, manifest digest,
    /// source, signers, and whether the trust policy (if any) trusts them.
    List {
        /// Signers named as in this policy, and each bundle's verdict
        /// [default: $VCC_TRUST, else ~/.config/vcc/trust.yaml, if any].
        #[arg(long, value_name = "FILE")]
        trust: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Remove a bundle and its signatures from the local store's index
    /// (`vcc bundle gc` then frees its blobs).
    Rm {
        /// NAME@VERSION or sha256:DIGEST (of the bundle manifest).
        #[arg(required = true)]
        bundles: Vec<String>,
    },
    /// Delete the local store's blobs no bundle references, and staging
    /// folders of pulls that no longer run; prints what it freed.
    Gc,
    /// Write stored bundles with their signatures into a new OCI image
    /// layout folder, for `vcc bundle pull DIR` on another machine.
    Save {
        /// The folder to write (must not hold a layout yet).
        dir: PathBuf,
        /// NAME@VERSION or sha256:DIGEST [default: every stored bundle].
        bundles: Vec<String>,
    },
}

#[derive(Args)]
pub struct LockArgs {
    pub contract: PathBuf,
    #[command(flatten)]
    pub trust: TrustArgs,
    /// Ask the registry the trust policy's rule names (`source`) for newer
    /// matching versions even when the local store has one.
    #[arg(long)]
    pub update: bool,
    /// Let a bundle move to a lower version than vcc.lock holds (refused
    /// with DOWNGRADE otherwise).
    #[arg(long)]
    pub allow_downgrade: bool,
}

#[derive(Subcommand)]
pub enum ValidatorCommand {
    /// One line per available validator: name, version, summary.
    List {
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Also show each validator's parameters (name, type, required,
        /// default, description).
        #[arg(long)]
        params: bool,
    },
    /// Write a new validator project (source, build settings, golden cases).
    New {
        #[arg(long, value_enum)]
        lang: Lang,
        /// Lower-case letters, digits and `-`.
        name: String,
        /// Where to write it [default: ./NAME].
        dir: Option<PathBuf>,
    },
    /// Build a validator project into build/NAME.wasm.
    Build {
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// Run golden cases through the real sandbox; exit 0 only if all match.
    Test {
        /// A validator project (its build/NAME.wasm and cases/), or a component.
        #[arg(default_value = ".")]
        target: PathBuf,
        /// The cases folder [default: cases/ in the project, or next to the component].
        #[arg(long, value_name = "DIR")]
        cases: Option<PathBuf>,
        /// Ask the judges of cases that have `judges:` live, through this
        /// judge configuration, and write each such case's `replay` session
        /// (its answers) instead of replaying it.
        #[arg(long, value_name = "CONFIG")]
        record_judges: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// The WIT of vcc:validator: the newest on stdout, or every version vcc
    /// loads written to DIR/VERSION/validator.wit.
    Wit {
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Make a wasip1 core module (C, Zig, Go…) a validator component: embed
    /// the `plugin` world and adapt WASI preview1 with the adapter of the
    /// wasmtime vcc runs; refused if vcc could not run the result.
    Componentize {
        /// The core module (`-mexec-model=reactor`, or a command exporting `_start`).
        core: PathBuf,
        #[arg(short, long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Digest, WIT version, describe() and imports of a component (or std/NAME).
    Inspect {
        component: PathBuf,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Rust,
    Python,
    Js,
    /// C with the one-header SDK (vcc_sdk.h, written into the project's .vcc/sdk/c).
    C,
    /// Zig, over the C SDK (translated into the module `vcc_sdk`).
    Zig,
    /// Any toolchain: `build:` runs a command that writes `output:`.
    Custom,
}

impl Lang {
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::Js => "js",
            Lang::C => "c",
            Lang::Zig => "zig",
            Lang::Custom => "custom",
        }
    }
}
