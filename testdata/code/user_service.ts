import { Injectable } from "@nestjs/common";
import { Repository } from "./repository";

/** A user as stored in the accounts table. */
export interface User {
  id: string;
  email: string;
  disabled?: boolean;
}

export type UserId = User["id"];

/**
 * UserService looks users up and caches them per request.
 */
@Injectable()
export class UserService {
  private readonly cache = new Map<UserId, User>();

  constructor(private readonly repo: Repository<User>) {}

  /**
   * Returns the user with this email, or undefined.
   * @param email - compared case-insensitively
   */
  async findByEmail(email: string): Promise<User | undefined> {
    const key = email.toLowerCase();
    return this.repo.findOne({ where: { email: key } });
  }

  invalidate(id: UserId): void {
    this.cache.delete(id);
  }
}

export const normalizeEmail = (email: string): string =>
  email.trim().toLowerCase();
