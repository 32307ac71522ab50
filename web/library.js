// The functions the window calls on the page (src/app/web.h), linked into springbox.js.
mergeInto(LibraryManager.library, {
  web_tell: function (what, text) {
    if (Module.springboxSays) Module.springboxSays(UTF8ToString(what), UTF8ToString(text));
  },
});
