"""Memory without being asked, in a coding session (issue 62): what a Claude Code session is told of the user when
it starts and with each prompt (context.py), and what it said that is kept (keeping.py). Claude Code's hooks call
these through the hook worker (server/hook_worker.py); what is about the user is global, what is about one project
stays with it (reading/projects.py)."""
