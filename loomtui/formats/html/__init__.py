"""The HTML export: the page, its renderer and its assets (page.html, page.css, page.js)."""
