package com.example.accounts;

import java.util.Optional;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

/**
 * Reads and writes users in the accounts database.
 */
@Repository
public class UserRepository extends JdbcRepository<User> {

    private static final String BY_EMAIL = "SELECT * FROM users WHERE lower(email) = lower(?)";

    public UserRepository(DataSource dataSource) {
        super(dataSource);
    }

    /**
     * Finds the user with this email, ignoring case.
     *
     * @param email the address to look up
     * @return the user, or empty when there is none
     */
    @Override
    @Transactional(readOnly = true)
    public Optional<User> findByEmail(String email) {
        return queryOne(BY_EMAIL, email);
    }

    @Transactional
    public void disable(long id) {
        update("UPDATE users SET disabled = true WHERE id = ?", id);
    }
}
