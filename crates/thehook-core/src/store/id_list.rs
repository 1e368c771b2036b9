//! A committed list of ids, one a line, sorted, that teammates add to in
//! parallel: `.thehook/consolidated.txt` (sessions merged into knowledge)
//! and `.thehook/confirmed.txt` (items a person confirmed in review). Git
//! merges both by union (`.thehook/.gitattributes`): both sides' additions
//! are kept, so a merge never conflicts, and reading dedupes what union
//! leaves twice.

use std::collections::BTreeSet;

use crate::error::Result;
use crate::project::Project;
use crate::store::write_atomic;

/// One list file in `.thehook/` and the comment that opens it.
pub(crate) struct IdList {
    pub file: &'static str,
    pub header: &'static str,
}

impl IdList {
    /// The ids the file holds (none when it is missing or unreadable).
    pub(crate) fn read(&self, project: &Project) -> BTreeSet<String> {
        std::fs::read_to_string(project.dir().join(self.file))
            .map(|text| parse(&text))
            .unwrap_or_default()
    }

    /// The file's text with `added` in it.
    pub(crate) fn with_added(
        &self,
        project: &Project,
        added: impl IntoIterator<Item = String>,
    ) -> String {
        let mut ids = self.read(project);
        ids.extend(added);
        self.render(ids)
    }

    /// Adds `id` (a no-op when it is there).
    pub(crate) fn add(&self, project: &Project, id: &str) -> Result<()> {
        let mut ids = self.read(project);
        if !ids.insert(id.to_string()) {
            return Ok(());
        }
        super::ensure_merge_attributes(project)?;
        write_atomic(&project.dir().join(self.file), self.render(ids).as_bytes())
    }

    /// Takes `id` out (a no-op when it is not there). Git merges the removal
    /// of a line cleanly unless the other side changed that line.
    pub(crate) fn remove(&self, project: &Project, id: &str) -> Result<()> {
        let mut ids = self.read(project);
        if !ids.remove(id) {
            return Ok(());
        }
        write_atomic(&project.dir().join(self.file), self.render(ids).as_bytes())
    }

    fn render(&self, ids: BTreeSet<String>) -> String {
        let mut text = self.header.to_string();
        for id in ids {
            text.push_str(&id);
            text.push('\n');
        }
        text
    }
}

fn parse(text: &str) -> BTreeSet<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_union_merged_list_reads_as_both_sides() {
        // What git's union merge makes of two clones' additions: both
        // blocks, the header twice at worst, lines out of order.
        let header = "# ids\n";
        let merged = format!("{header}a-1\nb-2\n{header}a-1\nc-3\n\n");
        let ids: Vec<String> = parse(&merged).into_iter().collect();
        assert_eq!(ids, ["a-1", "b-2", "c-3"]);
    }
}
