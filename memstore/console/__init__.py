"""What a person sees and changes in the console (SPEC §6, §8), as selectors and services.

    viewer    who is looking and what they may see (own user memory only, unless staff)
    facts     a bot's tabs and its facts a page at a time: keyset paging, word search, filters,
              who wrote each fact and how, a constant query count
    writes    the console's edits, deletes, undo, restore and clear, as the person, via=console,
              with refusals recorded in the failure log
    overview  the home page (bots and counts, recent changes, what failed) and history pages
    files     a bot's memory files, and one file line by line
    learning  what the learner did for a bot
    preview   what a bot's prompt memory section would hold in a chosen room
    aboutme   a person's About me: their memory merged across bots, forget everywhere, export
    reach     what of a person's memory can reach each bot's prompt, per room kind, and why not

It answers what there is; how it is shown (labels, wording, "new") is the console's business
(`memoryconsole.web.presenters`). It renders nothing and never touches files or index rows
directly: services and the index do.
"""
