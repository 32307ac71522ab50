// The window's keys (window_keys.c): what a key does, whether the window keeps it from the
// scene, and the lines of the help box.
#ifndef WINDOW_KEYS_H
#define WINDOW_KEYS_H

#include "window_internal.h"

/// The window's binding for this key, if it has one.
void window_keys_press(app *a, SDL_Keysym key, SDL_Renderer *r);
/// Whether the window keeps this key from the scene (ctrl+space and Pause always, the time keys
/// while the run is paused or rewound).
bool window_keys_owned(const app *a, SDL_Keysym key);
/// The window's own binding for this key run, as if the scene had passed it on; false when it has none.
bool window_keys_act(app *a, SDL_Keysym key, SDL_Renderer *r);
/// The help's line i: the key's name and what it does; false past the last.
bool window_keys_help(int i, const char **name, const char **help);

#endif
