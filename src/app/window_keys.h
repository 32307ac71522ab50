// The window's keys (window_keys.c): what a key does, whether the window keeps it from the
// scene, and the lines of the help box.
#ifndef WINDOW_KEYS_H
#define WINDOW_KEYS_H

#include "window_internal.h"

/// Runs the window's binding for this key; false when it has none.
bool window_keys_press(app *a, SDL_Keysym key, SDL_Renderer *r);
/// Whether the window keeps this key from the scene (ctrl+space and Pause always, the time keys
/// while the run is paused or rewound).
bool window_keys_owned(const app *a, SDL_Keysym key);
/// The help's line i: the key's name and what it does; false past the last.
bool window_keys_help(int i, const char **name, const char **help);

#endif
