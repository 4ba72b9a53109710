'use strict';

import utils from '../utils.js';

/**
 * An error raised for a failed request.
 */
function HttpError(message, code) {
  Error.call(this);
  this.message = message;
  this.code = code;
}

// toJSON drops the request, which does not serialise.
HttpError.prototype.toJSON = function toJSON() {
  return {message: this.message, code: this.code};
};

/**
 * Wraps any error as an HttpError, keeping its message.
 */
HttpError.from = (error, code) => {
  const e = new HttpError(error.message, code);
  e.cause = error;
  return e;
};

module.exports.isHttpError = function isHttpError(value) {
  return value instanceof HttpError;
};

HttpError.ERR_TIMEOUT = 'ETIMEDOUT';

module.exports = HttpError;
