//! What the hooks rank by besides the words and files of the moment, read
//! from this machine's index: how often agents used each line they were
//! given ([`crate::memory::rank::tally`]), worked out at capture. A hook
//! only reads it, and ranks as before when it is missing.

use crate::memory::rank::tally::TallyFile;
use crate::project::Project;

#[derive(Debug, Default)]
pub(crate) struct Learned {
    pub(crate) tally: TallyFile,
}

impl Learned {
    pub(crate) fn load(project: &Project) -> Learned {
        Learned {
            tally: TallyFile::load(project),
        }
    }
}
