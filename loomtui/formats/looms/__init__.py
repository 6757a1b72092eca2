"""OpenLoom, socketteer looms, bookmarks, bundles and media (docs/formats.md)."""
