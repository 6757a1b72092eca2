"""Other files as sessions, and the exports (docs/architecture.md, "The formats package").

Loading this layer hands the session layer the listers of the other agents' sessions
(``sources.LISTERS``): the catalog, full-text search and the browser's "open parent session"
sit below it and cannot import them, so they ask ``session/agent_catalog.py`` for them.
"""

from loomtui.formats import sources
from loomtui.session import agent_catalog

agent_catalog.use_listers(sources.listers)
