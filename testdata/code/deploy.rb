# Capistrano tasks for the storefront.
namespace :deploy do
  desc "Restart the app servers"
  task :restart do
    on roles(:app) do
      execute :touch, release_path.join("tmp/restart.txt")
    end
  end
end
