"""Console URLs: login, home, people (staff), and a bot's pages (facts, edits, history, clear, prompt preview,
learning, files)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from memoryconsole.web.views import facts, history, home, pages, people, rows

app_name = "web"

# A bot's pages: (path under bots/<bot>/, view, name).
_BOT_PAGES = [
    ("", facts.bot_page, "bot"),
    ("facts/row/", rows.fact_row_part, "fact_row"),
    ("facts/edit/", rows.edit_fact, "fact_edit"),
    ("facts/delete/", rows.delete_fact, "fact_delete"),
    ("facts/undo/", rows.undo_delete, "fact_undo"),
    ("history/", history.history_page, "history"),
    ("history/restore/", history.restore_fact, "restore"),
    ("clear/", facts.clear_memory, "clear"),
    ("prompt/", pages.prompt_page, "prompt"),
    ("learning/", pages.learning_page, "learning"),
    ("files/", pages.files_page, "files"),
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
    path("people/", people.people_page, name="people"),
    *(path(f"bots/<str:bot>/{sub}", view, name=name) for sub, view, name in _BOT_PAGES),
]
