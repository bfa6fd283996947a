// What the browse server is given: the library's calls, and the CLI's ways of doing what the
// browse layer may not do itself (send a thumbnail, put an error into words).
import type {
  CarouselResponse,
  DeleteResponse,
  GetResponse,
  ListResponse,
  PatchRequest,
  PatchResponse,
} from '../api/schemas.js';
import type { ListParams } from '../api/client.js';

/** The calls browse makes: the API client's own methods (src/api/client.ts). */
export interface BrowseLibrary {
  list(query: ListParams, o?: { signal?: AbortSignal }): Promise<ListResponse>;
  get(id: string, o?: { signal?: AbortSignal }): Promise<GetResponse>;
  patch(id: string, body: PatchRequest, o?: { signal?: AbortSignal }): Promise<PatchResponse>;
  remove(id: string, o?: { signal?: AbortSignal }): Promise<DeleteResponse>;
  /** A carousel's images in this order (PUT /api/v1/content/:id/order, as `edit --order`). */
  reorderImages(id: string, fileIds: readonly string[], o?: { signal?: AbortSignal }): Promise<CarouselResponse>;
  /** One image out (DELETE /api/v1/content/:id/files/:fileId, as `edit --remove-image`). */
  removeImage(id: string, fileId: string, o?: { signal?: AbortSignal }): Promise<CarouselResponse>;
}

export interface BrowseOptions {
  library: BrowseLibrary;
  /**
   * Checks an image file against the thumbnail rule, sends it and makes it the item's thumbnail
   * (the CLI's `edit --thumbnail`); throws what describe() can put in words.
   */
  setThumbnail(id: string, path: string, shownName: string, signal: AbortSignal): Promise<void>;
  /**
   * Checks an image file like any carousel image, sends it and puts it in the place of image
   * `fileId` (PUT /api/v1/content/:id/files/:fileId, as `edit --replace-image`); throws what
   * describe() can put in words.
   */
  replaceImage(id: string, fileId: string, path: string, shownName: string, signal: AbortSignal): Promise<void>;
  /** Any error as the CLI says it: what happened, then what to do. */
  describe(err: unknown): string;
  /** Which library, as the CLI's target line names it. */
  libraryName: string;
  /** 0 (default): a free port. */
  port?: number;
  /** Tests only: a known token instead of a random one. */
  token?: string;
}
