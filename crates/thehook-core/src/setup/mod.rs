//! Installing thehook into a project and checking it: [`init`] wires the
//! agents' settings (and [`init::uninstall`] unwires exactly that);
//! [`doctor`] checks the install and says how to fix each problem.

pub mod doctor;
pub mod init;
pub mod plan;
