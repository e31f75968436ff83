/*
 * Opens a session through gridgate with Selenium's Java client (the classes inside the Selenium server jar),
 * drives a page, and reports its test failed with Selenium Grid 4.41's session event (fireSessionEvent, POST
 * /session/{id}/se/event), as a failing JUnit test's listener would. Run with Java 17's single-file launch.
 *
 * Usage: java -cp selenium-server-*.jar MarkFailed.java GRID_URL PAGE_URL
 * Prints "session: <id>" and then "event: <the grid's answer>".
 */
import java.net.URL;
import java.util.Map;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.remote.RemoteWebDriver;

public class MarkFailed {
  public static void main(String[] args) throws Exception {
    ChromeOptions options = new ChromeOptions();
    options.setCapability("se:name", "java checkout");
    RemoteWebDriver driver = new RemoteWebDriver(new URL(args[0]), options);
    System.out.println("session: " + driver.getSessionId());
    try {
      driver.get(args[1] + "/");
      for (int step = 0; step < 10; step++) {
        ((JavascriptExecutor) driver).executeScript("document.body.textContent = 'step ' + arguments[0]", step);
      }
      Map<String, Object> answer =
          driver.fireSessionEvent("test:failed", Map.of("testName", "java checkout", "error", "expected 42, got 41"));
      System.out.println("event: " + answer);
    } finally {
      driver.quit();
    }
  }
}
