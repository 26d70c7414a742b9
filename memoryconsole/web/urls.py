"""Console URLs: login, home, and a bot's pages (facts, edits, history, clear, prompt preview)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from memoryconsole.web import upkeep_pages, views

app_name = "web"
urlpatterns = [
    path(
        "login/",
        auth_views.LoginView.as_view(
            template_name="web/login.html", redirect_authenticated_user=True
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", views.home_page, name="home"),
    path("bots/<str:bot>/", views.bot_page, name="bot"),
    path("bots/<str:bot>/facts/row/", views.fact_row_part, name="fact_row"),
    path("bots/<str:bot>/facts/edit/", views.edit_fact, name="fact_edit"),
    path("bots/<str:bot>/facts/delete/", views.delete_fact, name="fact_delete"),
    path("bots/<str:bot>/facts/undo/", views.undo_delete, name="fact_undo"),
    path("bots/<str:bot>/history/", views.history_page, name="history"),
    path("bots/<str:bot>/history/restore/", views.restore_fact, name="restore"),
    path("bots/<str:bot>/clear/", views.clear_memory, name="clear"),
    path("bots/<str:bot>/prompt/", views.prompt_page, name="prompt"),
    path("bots/<str:bot>/learning/", views.learning_page, name="learning"),
    path("bots/<str:bot>/files/", views.files_page, name="files"),
    path("bots/<str:bot>/graph/", upkeep_pages.graph_page, name="graph"),
    path("bots/<str:bot>/health/", upkeep_pages.health_page, name="health"),
    path("bots/<str:bot>/proposals/", upkeep_pages.proposals_page, name="proposals"),
    path("bots/<str:bot>/proposals/decide/", upkeep_pages.proposal_decide, name="proposal_decide"),
    path("health/", upkeep_pages.health_page, name="workspace_health"),
    path("health/fix/", upkeep_pages.health_fix, name="health_fix"),
]
