"""How the console shows things: labels, wording and display decisions, one module per page
family. `memstore.console` answers what there is; these decide how a person sees it, so
templates only display what they are given. Pure: no queries, no file I/O."""
