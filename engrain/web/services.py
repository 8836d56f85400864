"""What the page uses: the services the tools and resources use, and the export writer (server/ui.py wires
them)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TextIO

from engrain.services.memories.browsing import MemoryBrowser
from engrain.services.memories.import_runs import ImportRuns
from engrain.services.memories.imported import ImportedHistory
from engrain.services.memories.importing import ChatImporter
from engrain.services.memories.links import MemoryLinks
from engrain.services.memories.views import MemoryViews
from engrain.services.memories.writing import MemoryWriter
from engrain.services.profile.view import ProfileView
from engrain.services.recall.search import RecallSearch
from engrain.services.status.report import StatusReport
from engrain.services.traits.review import TraitReview
from engrain.services.traits.views import TraitViews

Export = Callable[[str, TextIO], Awaitable[int]]


@dataclass(frozen=True)
class PageServices:
    """What the page uses: the services the tools and resources use, and the export writer."""

    profile: ProfileView
    traits: TraitViews
    review: TraitReview
    recall: RecallSearch
    browser: MemoryBrowser
    memory_views: MemoryViews
    memories: MemoryWriter
    links: MemoryLinks
    status: StatusReport
    export: Export
    chat_import: ChatImporter
    imported: ImportedHistory
    import_runs: ImportRuns
