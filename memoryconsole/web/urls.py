"""Console URLs: login, home, the always-on notes, workspace health, people, webhooks and the
share audit (staff), the workspace's sensitive keywords, a bot's pages (facts, edits, history,
fact versions, as of a date, clear, prompt preview, learning, files, About me, links, health,
proposals, memory sources), and a person's About me pages (what bots know, controls, forget
everywhere, export, prompts)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from memoryconsole.web.views import (
    aboutme,
    aboutrows,
    adding,
    consent,
    docs,
    facts,
    history,
    home,
    notes,
    pages,
    people,
    provenance,
    review,
    rows,
    search,
    sensitive,
    tokens,
    upkeep,
    webhooks,
)

app_name = "web"

# A bot's pages: (path under bots/<bot>/, view, name).
_BOT_PAGES = [
    ("", facts.bot_page, "bot"),
    ("facts/add/", adding.add_fact, "fact_add"),
    ("facts/row/", rows.fact_row_part, "fact_row"),
    ("facts/edit/", rows.edit_fact, "fact_edit"),
    ("facts/delete/", rows.delete_fact, "fact_delete"),
    ("facts/undo/", rows.undo_delete, "fact_undo"),
    ("facts/erase/", rows.erase_fact, "fact_erase"),
    ("facts/share/", rows.share_fact, "fact_share"),
    ("facts/feedback/", rows.feedback_fact, "fact_feedback"),
    ("history/", history.history_page, "history"),
    ("history/restore/", history.restore_fact, "restore"),
    ("clear/", facts.clear_memory, "clear"),
    ("undo/", facts.undo_batch, "undo_batch"),
    ("facts/delete-many/", facts.delete_facts, "facts_delete"),
    ("prompt/", pages.prompt_page, "prompt"),
    ("learning/", pages.learning_page, "learning"),
    ("review/", review.review_page, "review"),
    ("exchange/", provenance.exchange_page, "exchange"),
    ("sources/", provenance.sources_page, "sources"),
    ("facts/seen/", provenance.fact_seen_page, "fact_seen"),
    ("tokens/", tokens.tokens_page, "tokens"),
    ("tokens/revoke/", tokens.revoke_token, "token_revoke"),
    ("tokens/projects/", tokens.set_membership, "membership_set"),
    ("connect/", tokens.connect_page, "connect"),
    ("connect/plugins.zip", tokens.plugin_download, "plugins"),
    ("search/why/", search.bot_search_why, "bot_search_why"),
    ("review/decide/", review.review_decide, "review_decide"),
    ("files/", pages.files_page, "files"),
    ("about-me/", notes.about_me_page, "about_me"),
    ("about-me/restore/", notes.about_me_restore, "about_me_restore"),
    ("versions/", history.fact_versions_page, "fact_versions"),
    ("versions/restore/", history.fact_version_restore, "fact_version_restore"),
    ("as-of/", facts.as_of_page, "as_of"),
    ("graph/", upkeep.graph_page, "graph"),
    ("health/", upkeep.health_page, "health"),
    ("proposals/", upkeep.proposals_page, "proposals"),
    ("proposals/decide/", upkeep.proposal_decide, "proposal_decide"),
]

# A person's About me pages: (path under people/<person>/, view, name).
_PERSON_PAGES = [
    ("", aboutme.about_me_page, "about_page"),
    ("controls/", aboutme.about_controls, "about_controls"),
    ("add/", aboutme.about_add, "about_add"),
    ("forget/", aboutme.about_forget, "about_forget"),
    ("export/", aboutme.about_export_file, "about_export"),
    ("prompts/", aboutme.about_prompts, "about_prompts"),
    ("unlink/", aboutme.about_unlink, "about_unlink"),
    ("row/", aboutrows.about_row, "about_row"),
    ("edit/", aboutrows.about_edit, "about_edit"),
    ("delete/", aboutrows.about_delete, "about_delete"),
    ("undo/", aboutrows.about_undo, "about_undo"),
]

urlpatterns = [
    path(
        "login/",
        auth_views.LoginView.as_view(
            template_name="web/login.html", redirect_authenticated_user=True
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", home.home_page, name="home"),
    path("bots/new/", tokens.new_bot_page, name="bot_new"),
    path("docs/", docs.docs_index, name="docs"),
    path("docs/<str:name>/", docs.docs_page, name="doc"),
    path("me/", aboutme.about_me_page, name="me"),
    *(path(f"people/<str:person>/{sub}", view, name=name) for sub, view, name in _PERSON_PAGES),
    path("search/", search.search_page, name="search"),
    path("connections/", consent.connections_page, name="connections"),
    path("search/why/", search.search_why, name="search_why"),
    path("people/", people.people_page, name="people"),
    path(
        "settings/sensitive-keywords/",
        sensitive.sensitive_keywords_page,
        name="sensitive_keywords",
    ),
    path("webhooks/", webhooks.webhooks_page, name="webhooks"),
    path("audit/", people.share_audit_page, name="share_audit"),
    path("notes/workspace/", notes.workspace_note_page, name="workspace_note"),
    path("notes/workspace/restore/", notes.workspace_note_restore, name="workspace_note_restore"),
    path("notes/you/", notes.about_you_page, name="about_you"),
    path("notes/you/restore/", notes.about_you_restore, name="about_you_restore"),
    path("notes/you/<str:person>/", notes.about_you_page, name="about_you_of"),
    path("notes/you/<str:person>/restore/", notes.about_you_restore, name="about_you_restore_of"),
    path("health/", upkeep.health_page, name="workspace_health"),
    path("health/fix/", upkeep.health_fix, name="health_fix"),
    *(path(f"bots/<str:bot>/{sub}", view, name=name) for sub, view, name in _BOT_PAGES),
]
