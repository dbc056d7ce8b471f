// One rule for a trace's name (server/path/traces.js keeps traces by it), shared by the lab, the
// runner (--trace-down FILE) and the page (an uploaded file): safe in a URL, a file name and a message.

export const traceNamePattern = /^[\w.-]{1,64}$/;

/**
 * The name an uploaded file's trace gets: its file name, made to fit traceNamePattern.
 * @param {string} fileName
 */
export const traceNameOf = (fileName) => fileName.replace(/[^\w.-]/g, '_').slice(0, 64) || 'trace';
