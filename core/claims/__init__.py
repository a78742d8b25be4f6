"""Claims: what a note says, and whether two notes say the same thing or contradict.

Pure functions over text (no files, no clock), shared by the offline dreamer and the proposals
inbox. May import `errors`, `io` and `formats`.
- `tokens`: words of any script, normalized; numbers, times and dates are values, never
  evidence that two notes are about the same thing;
- `cleaning`: a line without bullets, timestamps, emphasis or bookkeeping prefixes; a
  checkbox's task state (open, done);
- `extract`: a line read as a `Claim` (a statement, or a subject with a value);
- `sameness`: the same claim, a near duplicate, support for a topic;
- `logs`: keys whose values observe a moment or an event ("cost today", "last run"), never a setting;
- `contradiction`: the one contradiction rule (the same subject, another value);
- `naming`: readable slugs in any script; `index`: candidates for a claim among thousands;
- `codec`: a claim as JSON text and back, for the offline dreamer's projection.
"""
