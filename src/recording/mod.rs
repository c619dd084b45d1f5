//! What a recording is: the format of outcomes (the interface to other
//! runners), the caps and admission every outcome goes through, reading and
//! writing `recording.json`, and the case store that keeps outcomes per
//! case. Data only: nothing here starts a process (that is
//! [`crate::runner`]); grading and reports read these types.

pub(crate) mod admitted;
pub mod caps;
pub mod case_store;
pub mod format;
pub mod json;
pub(crate) mod memo;
pub mod recording_file;

pub use recording_file::{
    check_work_dir, parse_recording, read_recording, recording_path, write_recording,
    RecordingError,
};
