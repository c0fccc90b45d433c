import type { Company, CompanySettings } from '../schema/platform/db';

/**
 * Where a company's photos are served: its own `media_base_url` setting, else the deployment's MEDIA_BASE_URL, without
 * a trailing slash. Shared by the catalogue's public forms and the portals' feeds, so both give the same URLs.
 */
export function mediaBaseOf(company: Company, mediaBaseUrl: string): string {
  const settings: CompanySettings = company.settings ?? {};
  return (settings.media_base_url ?? mediaBaseUrl).replace(/\/+$/, '');
}

/** The sizes every photo is served in, by name, with their widths in pixels. */
export const photoWidths = { small: 480, medium: 960, large: 1600 } as const;

/**
 * The files every photo is served as, by the image pipeline that writes the sizes (docs/deploy.md, "Photos"): WebP
 * for the catalogue's answers (smaller), and a JPEG of the large size for the portals' feeds, whose formats list
 * JPEG, PNG, BMP and GIF but not WebP (docs/api-reference.md, "Portals and advertising permits").
 */
export type PhotoFormat = 'webp' | 'jpg';

/** A photo's absolute URL at one width: `<media>/<company id>/<storage key, each segment encoded>/w<width>.<format>`. */
export function photoUrl(media: string, companyId: string, storageKey: string, width: number, format: PhotoFormat): string {
  return `${media}/${companyId}/${storageKey.split('/').map(encodeURIComponent).join('/')}/w${width}.${format}`;
}
