/**
 * The kinds of item the API serves and a pipeline writes: events, the venues and organizers they link,
 * and the terms of the two taxonomies. One name for the server's routes and errors, the writer, the
 * pipeline and the sync state.
 */
export type Kind = 'category' | 'tag' | 'venue' | 'organizer' | 'event';
