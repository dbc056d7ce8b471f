// A setting the lab refused (HTTP 400 naming the field, server/http/errors.js): said under the
// form it came from, and its input marked until the next run. One place for every form's.

/**
 * @param {HTMLFormElement} form @param {HTMLElement} errorsEl @param {unknown} err  what the job threw
 * @param {(field: string) => string} [inputOf]  the input's name for the field, where they differ
 * @returns {boolean} whether the lab named a field
 */
export function showRefusedField(form, errorsEl, err, inputOf = (field) => field) {
  const { field, error } = /** @type {import('../lab/api.js').ApiError} */ (err).body ?? {};
  if (!field) return false;
  errorsEl.textContent = `The lab refused ${field}: ${error}`;
  // A group of boxes (the protocols) is named by the message alone.
  const input = form.elements.namedItem(inputOf(field));
  if (input instanceof Element) input.setAttribute('aria-invalid', 'true');
  return true;
}
