"""The prompt's memory section (`section`, remembered per scope in `cache`), the always-on notes
(`notes`), the read that never waits past its budget (`budget`), and what a bot knew on a date
(`asof`)."""
