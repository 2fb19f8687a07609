//! Where a command's output goes: standard output, or the file of `-o`.

use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use crate::error::CliError;

/// Standard output, or a file (`-o`), created when the first output is
/// ready, so that a failed load leaves no file.
pub struct Output {
    path: Option<PathBuf>,
    writer: Option<Box<dyn Write>>,
}

impl Output {
    /// The output to `path` (`None` or `-`: standard output).
    pub fn new(path: Option<PathBuf>) -> Output {
        Output {
            path: path.filter(|p| p.as_os_str() != "-"),
            writer: None,
        }
    }

    /// The writer, the file created on the first call.
    pub fn writer(&mut self) -> Result<&mut dyn Write, CliError> {
        if self.writer.is_none() {
            let writer: Box<dyn Write> = match &self.path {
                Some(path) => Box::new(io::BufWriter::with_capacity(
                    1 << 20,
                    File::create(path).map_err(|error| CliError::CreateOutput {
                        path: path.clone(),
                        error,
                    })?,
                )),
                None => Box::new(io::BufWriter::with_capacity(1 << 20, io::stdout().lock())),
            };
            self.writer = Some(writer);
        }
        Ok(self.writer.as_deref_mut().expect("created above"))
    }

    /// Judges the outcome of writing (and flushes).
    pub fn done(&mut self, result: io::Result<()>) -> Result<(), CliError> {
        let result = result.and_then(|()| match &mut self.writer {
            Some(w) => w.flush(),
            None => Ok(()),
        });
        match result {
            Ok(()) => Ok(()),
            // A closed pipe (`| head`) is not an error worth a message.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe && self.path.is_none() => Ok(()),
            Err(error) => Err(CliError::WriteOutput {
                path: self.path.clone(),
                error,
            }),
        }
    }

    /// Writes all of `text`, and flushes.
    pub fn write(&mut self, text: &str) -> Result<(), CliError> {
        self.write_bytes(text.as_bytes())
    }

    /// Writes all of `bytes`, and flushes.
    pub fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), CliError> {
        let result = self.writer()?.write_all(bytes);
        self.done(result)
    }

    /// Whether the output goes to a terminal (standard output, not
    /// redirected).
    pub fn is_terminal(&self) -> bool {
        self.path.is_none() && io::stdout().is_terminal()
    }
}
