//! The differential harness (tests/differential/README.md): each std
//! validator's reading of a format against the reference reader its users
//! run, on the same inputs; vcc may refuse (fail/error), never pass more.

mod tap;
