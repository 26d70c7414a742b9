"""The people's door: what a person sees and changes in the console, as selectors and services.

    viewer       who is looking and what they may see (own user memory only, unless staff)
    facts        a bot's tabs and its facts a page at a time: keyset paging, filters, who wrote
                 each fact and how, a constant query count
    search       the API's recall over every tab of a bot, or every bot a person may see
    why          "Why here?" for one search result
    spelling     typos corrected from each scope's vocabulary ("budjet" finds "budget")
    authoring    adding a fact and editing every field of one
    writes       the console's deletes, undo (one fact, a bulk delete, a clear), restore and
                 clear, as the person, via=console
    versions     a fact's versions, and restoring one
    sharing      sharing a private memory with the workspace
    feedback     a person confirms a fact, or marks it outdated, wrong or do-not-use
    review       the review inbox: proposals (the learner's report mode) accepted or rejected
    provenance   from a learned fact to its exchange and the facts that exchange produced
    sources      which memories shaped a reply: an exchange's retrieved, injected and cited
                 facts, who has seen a fact, a bot's exchanges with their counts
    graph        the graph of links between facts
    tokens       bot tokens for staff, and the bot's display name
    plugins      the per-deployment plugin bundle for coding agents (Claude Code, Codex, Cursor)
    people       the people page (staff only): people, their bot links and controls
    webhooks     the webhooks page (staff only): change-feed endpoints and their delivery log
    connections  connecting an MCP client (OAuth consent) and the connections a person made
    overview     the home page (bots and counts, recent changes, what failed) and history pages
    forgotten_recently  what was forgotten lately
    files        a bot's memory files, and one file line by line
    notes        the always-on notes, with who may read and write each
    health       the health pages and the proposal inbox
    learning     what the learner did for a bot
    preview      what a bot's prompt memory section would hold in a chosen room
    aboutme      a person's About me: their memory merged across bots, forget everywhere, export
    reach        what of a person's memory can reach each bot's prompt, per room kind, and why not
    sensitive    the workspace's sensitive keywords: staff change the list, everyone reads it

It answers what there is; how it is shown (labels, wording, "new") is the console's business
(`memoryconsole.web.presenters`). It renders nothing and never touches files or index rows
directly: services and the index do.
"""
