//! What `vcc check` and `vcc merge` print and which report files they keep:
//! `--format`, `--report`, `--report-FORMAT` and `--sarif-passes`. The
//! flags are made from `vcc_formats::Format::ALL` (its names and help), so
//! a format added there is a flag of both commands without a line here.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Arg, ArgAction, ArgMatches, Command, FromArgMatches};
use vcc_formats::Format;

/// What is printed: human output on stderr, or one machine format on
/// stdout.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Print {
    Human,
    Machine(Format),
}

impl Print {
    /// The `--format` flag: `human` and every format that may be printed.
    /// (Plain possible values: values with help of their own would turn
    /// the whole `--help` into one flag per paragraph.)
    pub fn arg() -> Arg {
        let machine = Format::ALL
            .into_iter()
            .filter(|f| f.prints())
            .map(|f| PossibleValue::new(f.name()));
        let values = std::iter::once(PossibleValue::new("human")).chain(machine);
        Arg::new("format")
            .long("format")
            .value_name("FORMAT")
            .help("human (on stderr), or a machine format on stdout")
            .default_value("human")
            .value_parser(PossibleValuesParser::new(values).map(|name| Print::named(&name)))
    }

    fn named(name: &str) -> Print {
        Format::named(name).map_or(Print::Human, Print::Machine)
    }

    /// The format printed on stdout; `None`: human, on stderr.
    pub fn machine(self) -> Option<Format> {
        match self {
            Print::Human => None,
            Print::Machine(f) => Some(f),
        }
    }
}

/// What is printed, every report file asked for, and the choices of the
/// writers: one set of flags, flattened into `vcc check` and `vcc merge`.
#[derive(Clone, Debug)]
pub struct ReportArgs {
    /// `--format`.
    pub print: Print,
    /// Each file with its format and the flag that asked for it, in the
    /// order of the flags.
    pub files: Vec<ReportFile>,
    /// What the writers are asked beyond the format (`--sarif-passes`).
    pub options: vcc_formats::Options,
}

#[derive(Clone, Debug)]
pub struct ReportFile {
    pub path: PathBuf,
    pub format: Format,
    /// `--report-junit`, or `--report` for the JSON report's short form.
    pub flag: String,
}

/// `--report FILE`: the JSON report, as `--report-json`.
const REPORT: &str = "report";
const SARIF_PASSES: &str = "sarif-passes";

impl ReportArgs {
    /// The JSON report files (`--report`, `--report-json`).
    pub fn json(&self) -> impl Iterator<Item = &PathBuf> {
        self.files
            .iter()
            .filter(|f| f.format == Format::Json)
            .map(|f| &f.path)
    }

    /// Each file with the flag that asked for it.
    pub fn flags(&self) -> Vec<(PathBuf, String)> {
        self.files
            .iter()
            .map(|f| (f.path.clone(), f.flag.clone()))
            .collect()
    }
}

fn flag_id(format: Format) -> String {
    format!("report-{}", format.name())
}

fn file_arg(id: impl Into<clap::Id>) -> Arg {
    Arg::new(id)
        .value_name("FILE")
        .action(ArgAction::Set)
        .value_parser(clap::value_parser!(PathBuf))
}

impl clap::Args for ReportArgs {
    fn augment_args(mut cmd: Command) -> Command {
        cmd =
            cmd.arg(Print::arg())
                .arg(file_arg(REPORT).long(REPORT).help(
                    "Also write the JSON report to FILE (atomically; the same as --report-json)",
                ));
        for format in Format::ALL {
            let id = flag_id(format);
            cmd = cmd.arg(file_arg(id.clone()).long(id).help(match format.detail() {
                Some(detail) => format!("Also write {} to FILE ({detail})", format.help()),
                None => format!("Also write {} to FILE", format.help()),
            }));
            if format == Format::Sarif {
                cmd = cmd.arg(
                    Arg::new(SARIF_PASSES)
                        .long(SARIF_PASSES)
                        .action(ArgAction::SetTrue)
                        .help(
                            "SARIF: send the criteria that passed too, as `kind: pass` results \
                             (left out by default: code scanning may show every result as an alert)",
                        ),
                );
            }
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for ReportArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut files = Vec::new();
        let named = std::iter::once((REPORT.to_string(), Format::Json))
            .chain(Format::ALL.into_iter().map(|f| (flag_id(f), f)));
        for (id, format) in named {
            if let Some(path) = matches.get_one::<PathBuf>(&id) {
                files.push(ReportFile {
                    path: path.clone(),
                    format,
                    flag: format!("--{id}"),
                });
            }
        }
        let options = vcc_formats::Options {
            sarif_passes: matches.get_flag(SARIF_PASSES),
        };
        let print = matches
            .get_one::<Print>("format")
            .copied()
            .unwrap_or(Print::Human);
        Ok(ReportArgs {
            print,
            files,
            options,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}
