/** The HTML real routers serve outside /rest: WebFig at `/`, an HTML 404 elsewhere. */

export function webfigPage(identity: string): string {
  const name = identity.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return (
    '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>RouterOS router configuration page</title></head>' +
    `<body><h1>RouterOS</h1><p>${name}</p><p><a href="/webfig/">Webfig</a></p></body></html>\n`
  );
}

export const NOT_FOUND_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Error 404: Not Found</title></head>' +
  '<body><h1>Error 404: Not Found</h1></body></html>\n';
