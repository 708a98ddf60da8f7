/**
 * Avatars: an uploaded PNG, JPEG or WebP per user, or else a generated SVG.
 *
 *   getAvatar(actor, userId): Promise<AvatarImage>              the stored image, or the generated SVG; 404 unknown user
 *   putAvatar(actor, userId, upload: { contentType, data }): Promise<{ avatar: AvatarInfo; created: boolean }>
 *       the user or an admin; 415 for a type other than the three, 422 when the bytes are not that type
 */
import { requireSelfOrAdmin, requireSignedIn } from '../../core/access/guards.ts';
import type { Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { isForeignKeyViolation } from '../../core/db/db-errors.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { noEvents, type EventRecorder } from '../events/event-recorder.ts';
import { toUser, type User } from '../users/user.ts';
import { findUserById } from '../users/users.reads.ts';
import { AVATAR_MAX_BYTES, AVATAR_TYPES, avatarTypeOf, sniffImageType } from './avatar-image.ts';
import { renderAvatarSvg } from './avatar-svg.ts';
import * as repo from './avatars.repository.ts';

export interface AvatarImage {
  contentType: string;
  body: Buffer;
  /** False for the generated SVG. */
  uploaded: boolean;
}

export interface AvatarInfo {
  userId: number;
  contentType: string;
  size: number;
  updatedAt: string;
}

export interface AvatarUpload {
  contentType: string | undefined;
  /** The request body: a Buffer for the image types, anything else otherwise. */
  data: unknown;
}

const userNotFound = (id: number) => AppError.notFound(`User ${id}`);
const unsupported = () =>
  new AppError('UNSUPPORTED_MEDIA_TYPE', `Send the avatar as one of ${AVATAR_TYPES.join(', ')}`);

/** node:sqlite returns blobs as Uint8Array, pg as Buffer; the HTTP layer wants a Buffer. */
const asBuffer = (bytes: Uint8Array) =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** A new avatar is a change to its user (DECISIONS §10). */
export type AvatarEvents = { 'user.updated': User };

export function createAvatarsService(db: Db, events: EventRecorder<AvatarEvents> = noEvents()) {
  return {
    async getAvatar(actor: Principal | null, userId: number): Promise<AvatarImage> {
      requireSignedIn(actor);
      const user = await findUserById(db, userId);
      if (!user) throw userNotFound(userId);
      const stored = await repo.findAvatar(db, userId);
      if (stored) return { contentType: stored.content_type, body: asBuffer(stored.data), uploaded: true };
      return { contentType: 'image/svg+xml', body: Buffer.from(renderAvatarSvg(user), 'utf8'), uploaded: false };
    },

    async putAvatar(
      actor: Principal | null,
      userId: number,
      upload: AvatarUpload,
    ): Promise<{ avatar: AvatarInfo; created: boolean }> {
      requireSelfOrAdmin(actor, userId);
      const declared = avatarTypeOf(upload.contentType);
      if (!declared || !(upload.data instanceof Uint8Array)) throw unsupported();
      const data = upload.data;
      if (data.byteLength > AVATAR_MAX_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', 'An avatar may be at most 1 MiB');
      if (sniffImageType(data) !== declared) {
        throw AppError.validation(
          [{ field: 'body', message: `is not a ${declared} image` }],
          'The uploaded content does not match its Content-Type',
        );
      }
      if (!(await findUserById(db, userId))) throw userNotFound(userId);
      const updatedAt = now();
      try {
        const created = await events.transaction(db, async (trx) => {
          const upserted = await repo.upsertAvatar(trx, {
            user_id: userId,
            content_type: declared,
            data,
            updated_at: updatedAt,
          });
          const user = await findUserById(trx, userId);
          if (user) await events.record(trx, 'user.updated', toUser(user));
          return upserted;
        });
        return { avatar: { userId, contentType: declared, size: data.byteLength, updatedAt }, created };
      } catch (error) {
        // The user was deleted between the check and the write.
        if (isForeignKeyViolation(error)) throw userNotFound(userId);
        throw error;
      }
    },
  };
}

export type AvatarsService = ReturnType<typeof createAvatarsService>;
