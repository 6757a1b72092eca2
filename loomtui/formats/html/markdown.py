"""Markdown for the HTML page: markdown-it with Pygments for fenced code, and pi's URL
allow-list for links and images (a link to another scheme keeps only its text, an image only its
alt text). No Textual here."""

from __future__ import annotations

import re
from html import escape
from typing import Any

#: longer texts are shown preformatted, not parsed as Markdown or highlighted
HIGHLIGHT_LIMIT = 50_000

#: the URL schemes a link or image in the page may use (pi's HTML export allow-list); a URL
#: without a scheme (relative, or a fragment) is kept too
SAFE_SCHEMES = frozenset({"http", "https", "mailto", "tel", "ftp"})
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_C0 = re.compile(r"[\x00-\x1f\x7f]")


def safe_url(url: str) -> str | None:
    """``url`` as a link may use it (C0 controls stripped, as browsers strip them from a
    scheme), or None when its scheme is not on the allow-list."""
    href = _C0.sub("", url.strip())
    m = _SCHEME.match(href)
    if m and m.group(1).lower() not in SAFE_SCHEMES:
        return None
    return href


def _markdown_renderer() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False, "highlight": highlight})
    md.enable(["table", "strikethrough"])
    normalize = md.normalizeLink
    # every link is parsed as a link (a refused one keeps its text, as pi's page does); the
    # allow-list decides at rendering, on the URL with its control characters taken out
    md.normalizeLink = lambda url: normalize(_C0.sub("", url.strip()))
    md.validateLink = lambda url: True
    rules = md.renderer.rules
    link_open, link_close, image = rules.get("link_open"), rules.get("link_close"), rules.get("image")

    def render_link_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        tok = tokens[idx]
        if safe_url(tok.attrGet("href") or "") is None:
            tok.meta["refused"] = True
            depth = 0
            for later in tokens[idx + 1 :]:  # its close tag goes too
                if later.type == "link_open":
                    depth += 1
                elif later.type == "link_close":
                    if depth == 0:
                        later.meta["refused"] = True
                        break
                    depth -= 1
            return ""
        return link_open(tokens, idx, options, env) if link_open else self.renderToken(tokens, idx, options, env)

    def render_link_close(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        if tokens[idx].meta.get("refused"):
            return ""
        return link_close(tokens, idx, options, env) if link_close else self.renderToken(tokens, idx, options, env)

    def render_image(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        tok = tokens[idx]
        if safe_url(tok.attrGet("src") or "") is None:
            return escape(self.renderInlineAsText(tok.children or [], options, env))
        return image(tokens, idx, options, env) if image else self.image(tokens, idx, options, env)

    md.add_render_rule("link_open", render_link_open)
    md.add_render_rule("link_close", render_link_close)
    md.add_render_rule("image", render_image)
    return md


def highlight(code: str, lang: str, _attrs: str = "") -> str:
    """Pygments HTML for a fenced block (markdown-it's highlight hook); "" lets markdown-it escape it."""
    if not lang or len(code) > HIGHLIGHT_LIMIT:
        return ""
    from pygments import highlight as pyg
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(lang.split()[0])
    except ClassNotFound:
        return ""
    # markdown-it keeps a result that starts with <pre> as it is
    return f'<pre class="hl"><code>{pyg(code, lexer, HtmlFormatter(nowrap=True))}</code></pre>\n'
