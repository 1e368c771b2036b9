//! What the hooks rank by besides the words and files of the moment, read
//! from this machine's index: the files that change together in the
//! repository's history ([`crate::cochange`]) and how often agents used
//! each line they were given ([`crate::memory::rank::tally`]). Both are worked out
//! at capture and by session start's background half; a hook only reads
//! them, and ranks as before when they are missing.

use crate::cochange::Neighbours;
use crate::memory::rank::tally::TallyFile;
use crate::project::Project;

#[derive(Debug, Default)]
pub(crate) struct Learned {
    pub(crate) neighbours: Neighbours,
    pub(crate) tally: TallyFile,
}

impl Learned {
    pub(crate) fn load(project: &Project) -> Learned {
        Learned {
            neighbours: Neighbours::load(project),
            tally: TallyFile::load(project),
        }
    }
}
