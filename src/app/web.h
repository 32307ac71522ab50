// What the browser page hears from the window, for the editor beside it: each reload's result
// and message, a scene function's error, and draw mode's tool. Nothing outside a browser.
#pragma once

#ifdef __EMSCRIPTEN__
/// Tells the page: Module.springboxSays(what, text), when the page has one (web/library.js).
void web_tell(const char *what, const char *text);
#else
static inline void web_tell(const char *what, const char *text)
{
    (void)what;
    (void)text;
}
#endif
