"""What may be stored: the secret detectors (`secrets`, `secret_keys`, `secret_prose`, with
`normalise` and `unmask` folding evasions first), instruction-shaped text (`instructions`),
facts a speaker asked to keep about someone else (`others`), a person's memory controls
(`controls`), the content check every save and edit obeys (`content`, `policy`), the
workspace's sensitive keywords and the one test of a text against them (`sensitive`, its
built-in default list `sensitive_default`), which facts
are saved on purpose (`protected`), what a read withholds (`withheld`: excluded topics, a
paused person, flagged lines), and the log of what was refused or failed (`failures`)."""
