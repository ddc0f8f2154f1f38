"""dyl's front end: `dyl record` (build or reuse a wrapper, run a program under it) and
`dyl report` (the record folder to dyl-speedup).  Imports nothing of the generator's own
modules (libclang, Jinja2): a record with a cached wrapper starts fast."""
