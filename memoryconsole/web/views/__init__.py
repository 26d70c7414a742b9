"""Console views, one module per page: parse the request, call the console's selectors or
services, hand the result to the presenters, render.

    home      the bots, recent changes and what failed
    people    the people registry, bot links, editors and rooms (staff)
    facts     a bot's memory page and clearing it
    rows      one fact row: show, edit, delete, undo
    history   a bot's changes, and restoring a removed fact
    pages     the prompt preview, the learning page and the files page
    aboutme   a person's About me page, their controls, forget everywhere, export, and what
              can reach their prompts
    aboutrows one fact row of About me: show, edit, forget one bot's copy, undo
    upkeep    links graph, health report with fixes, proposals inbox
    tokens    a new bot (staff), a bot's tokens, how to connect it
    docs      the guides the package carries (staff)

One view per endpoint, one template per page; an htmx request gets a named partial of the same
template (`web/bot.html#fact-list`). Every view wears `common.console_view` (login, methods,
the bot in the URL, and `errors.console_errors`, the one error policy).
Every mutation is a POST with the CSRF token (sent once by `hx-headers` on <body>, and in each
form for browsers without JavaScript).
"""
