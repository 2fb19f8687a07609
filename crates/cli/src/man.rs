//! `tracekit man` and `tracekit completions`: the man pages and the
//! completion scripts, made from the command's own definition.

use clap::CommandFactory;

use crate::cli::Cli;
use crate::error::CliError;
use crate::output::Output;

/// Prints the man page (roff) of tracekit, or of one of its subcommands.
pub fn man(subcommand: Option<String>) -> Result<(), CliError> {
    let mut command = Cli::command();
    command.build();
    let page = match &subcommand {
        None => command,
        Some(name) => {
            let sub = command
                .find_subcommand(name)
                .ok_or_else(|| CliError::NoSubcommand(name.clone()))?
                .clone();
            let full = format!("tracekit-{name}");
            sub.name(full.clone())
                .bin_name(format!("tracekit {name}"))
                .display_name(full)
        }
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page).render(&mut roff).map_err(CliError::Man)?;
    Output::new(None).write(&String::from_utf8_lossy(&roff))
}

/// Prints the completion script of `shell`.
pub fn completions(shell: clap_complete::Shell) -> Result<(), CliError> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "tracekit", &mut script);
    Output::new(None).write(&String::from_utf8_lossy(&script))
}
