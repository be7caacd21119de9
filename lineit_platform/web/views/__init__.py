"""The server-rendered pages: public pages (pages.py) and a signed-in user's pages (account.py)."""
