//! Reports, one file per output format, all rendered from one graded result.
