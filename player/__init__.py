"""The audiobook domain: catalogs, cache, downloads, decoding, playback, bookmarks, tools."""
