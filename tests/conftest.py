"""Every test, and every process a test starts, uses a cache folder of its own."""

from __future__ import annotations

import os
import tempfile

from shapescript.check.prelude_cache import CACHE_VARIABLE

os.environ[CACHE_VARIABLE] = tempfile.mkdtemp(prefix="shapescript-test-cache-")
