//! Grading: a recording compared with the reference outcomes.
