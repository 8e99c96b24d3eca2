//! A small command-line argument reader: positionals, `--flag`, `--name value`,
//! `-x value` and `-xvalue`, with errors that say what was wrong.

use std::collections::VecDeque;
use std::fmt;

/// A mistake on the command line (exit status 2).
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Makes a usage error.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}

/// The arguments not yet consumed.
#[derive(Debug, Clone)]
pub struct Args {
    rest: VecDeque<String>,
}

impl Args {
    /// Wraps the arguments (without the program name).
    pub fn new(args: &[String]) -> Self {
        Self {
            rest: args.iter().cloned().collect(),
        }
    }

    /// Removes and returns the first argument that is not an option.
    pub fn next_positional(&mut self) -> Option<String> {
        let index = self
            .rest
            .iter()
            .position(|a| !a.starts_with('-') || a == "-")?;
        self.rest.remove(index)
    }

    /// Removes every occurrence of an option taking a value (`--name v`, `-n v`,
    /// `-nv`, `--name=v`) and returns the values in order.
    pub fn values(&mut self, names: &[&str]) -> anyhow::Result<Vec<String>> {
        let mut values = Vec::new();
        let mut index = 0;
        while index < self.rest.len() {
            let arg = &self.rest[index];
            let matched = names.iter().find_map(|name| {
                if arg == name {
                    Some(None)
                } else if let Some(v) = arg.strip_prefix(&format!("{name}=")) {
                    Some(Some(v.to_string()))
                } else if name.len() == 2 && !name.starts_with("--") && arg.starts_with(name) {
                    Some(Some(arg[2..].to_string()))
                } else {
                    None
                }
            });
            match matched {
                None => index += 1,
                Some(Some(value)) => {
                    self.rest.remove(index);
                    values.push(value);
                }
                Some(None) => {
                    let name = self.rest.remove(index).unwrap_or_default();
                    match self.rest.remove(index) {
                        Some(value) => values.push(value),
                        None => return Err(usage(format!("`{name}` needs a value"))),
                    }
                }
            }
        }
        Ok(values)
    }

    /// The value of an option given at most once.
    pub fn value(&mut self, names: &[&str]) -> anyhow::Result<Option<String>> {
        let mut values = self.values(names)?;
        if values.len() > 1 {
            return Err(usage(format!("`{}` given more than once", names[0])));
        }
        Ok(values.pop())
    }

    /// Removes a boolean flag; true if it was present.
    pub fn flag(&mut self, names: &[&str]) -> bool {
        let before = self.rest.len();
        self.rest.retain(|a| !names.contains(&a.as_str()));
        before != self.rest.len()
    }

    /// Fails if anything is left over.
    pub fn finish(&self) -> anyhow::Result<()> {
        match self.rest.front() {
            None => Ok(()),
            Some(extra) => Err(usage(format!("unexpected argument `{extra}`"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Args {
        Args::new(&list.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn options_and_positionals() {
        let mut a = args(&[
            "x.src",
            "-o",
            "out",
            "-Iinc",
            "-I",
            "more",
            "--layout=ts1",
            "-v",
        ]);
        assert_eq!(a.value(&["-o"]).unwrap().as_deref(), Some("out"));
        assert_eq!(a.values(&["-I"]).unwrap(), vec!["inc", "more"]);
        assert_eq!(a.value(&["--layout"]).unwrap().as_deref(), Some("ts1"));
        assert!(a.flag(&["-v"]));
        assert_eq!(a.next_positional().as_deref(), Some("x.src"));
        assert!(a.finish().is_ok());
    }

    #[test]
    fn errors() {
        let mut a = args(&["-o"]);
        assert!(a.value(&["-o"]).is_err());
        let mut a = args(&["-o", "a", "-o", "b"]);
        assert!(a.value(&["-o"]).is_err());
        let a = args(&["--what"]);
        assert!(a.finish().is_err());
    }
}
