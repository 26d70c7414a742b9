"""The memory service layer: Markdown files as the truth, a Postgres index, and the rules between.

It imports nothing from `memoryconsole`; the API and the console call into it.
"""
