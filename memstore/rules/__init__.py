"""What may be stored: the secret detectors (`secrets`, `secret_keys`, `secret_prose`, with
`normalise` folding evasions first), instruction-shaped text (`instructions`), a person's memory
controls (`controls`), the content check every save and edit obeys (`content`, `policy`), which
facts are saved on purpose (`protected`), and the log of what was refused or failed (`failures`)."""
