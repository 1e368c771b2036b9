//! Line selections as `thehook read` takes them: `5`, `5-10`, `1,5,10-15`.

use std::ops::RangeInclusive;

use crate::error::{Error, Result};

/// Which line numbers to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection(Vec<RangeInclusive<usize>>);

impl Selection {
    pub fn parse(spec: &str) -> Result<Selection> {
        let bad = |problem: String| Error::Usage {
            problem: format!("line selection {spec:?}: {problem}"),
            source: None,
            fix: "give line numbers as the session is printed with them: 5, 5-10 or 1,5,10-15"
                .into(),
        };
        let number = |s: &str| match s.trim().parse::<usize>() {
            Ok(0) => Err(bad("lines are numbered from 1".into())),
            Ok(n) => Ok(n),
            Err(_) => Err(bad(format!("{:?} is not a line number", s.trim()))),
        };
        let mut ranges = Vec::new();
        for part in spec.split(',') {
            let range = match part.split_once('-') {
                Some((from, to)) => {
                    let (from, to) = (number(from)?, number(to)?);
                    if from > to {
                        return Err(bad(format!("{from}-{to} runs backwards")));
                    }
                    from..=to
                }
                None => {
                    let n = number(part)?;
                    n..=n
                }
            };
            ranges.push(range);
        }
        Ok(Selection(ranges))
    }

    pub fn contains(&self, line: usize) -> bool {
        self.0.iter().any(|r| r.contains(&line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_lines_ranges_and_lists() {
        let s = Selection::parse("1,5,10-12").unwrap();
        let picked: Vec<usize> = (0..20).filter(|n| s.contains(*n)).collect();
        assert_eq!(picked, [1, 5, 10, 11, 12]);
        assert!(Selection::parse(" 7 ").unwrap().contains(7));
    }

    #[test]
    fn bad_selections_say_what_is_wrong() {
        for (spec, says) in [
            ("0", "numbered from 1"),
            ("10-5", "runs backwards"),
            ("x", "\"x\" is not a line number"),
            ("3,", "\"\" is not a line number"),
            ("1-2-3", "\"2-3\" is not a line number"),
        ] {
            let e = Selection::parse(spec).unwrap_err().to_string();
            assert!(e.contains(says), "{spec}: {e}");
            assert!(e.contains("fix:"), "{e}");
        }
    }
}
